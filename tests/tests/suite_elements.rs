//! Elements and their derives: the built-in `BitElement`s, `#[derive(BitElement)]`
//! and `#[derive(DeviceCopy)]`, `DevicePtr`, `NArray` and its storage rule,
//! `NarrowArray` at every width, and the bit-model seed's examples. One test
//! binary (`cargo test -p bitpack-tests --test suite_elements`); each module is
//! the file of the same name beside this one.

mod derive;
mod derived_containers;
mod device_copy;
mod device_ptr;
mod elements;
mod layers;
mod narray;
mod narrow_widths;
mod records;
mod seed_examples;
mod storage_rule;
