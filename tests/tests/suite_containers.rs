//! Containers, views and sums: borrowed arrays, run-time widths, layouts,
//! reinterpret, strided views, reductions, the word-aligned layout, and bad
//! and hostile input to every public `Result` function, and what the error
//! messages say. One test binary (`cargo test -p bitpack-tests --test
//! suite_containers`); each module is the file of the same name beside this
//! one.

mod bad_input;
mod borrowed;
mod dyn_width;
mod hostile_inputs;
mod layout;
mod messages;
mod panic_audit;
mod reduce;
mod reinterpret;
mod views;
mod word_aligned;
