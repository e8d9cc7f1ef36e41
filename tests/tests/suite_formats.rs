//! Float formats, block scaling and the conformance vectors: bulk and wide
//! conversions, MX and NVFP4, the block core, the width-as-a-constant device
//! kernels, and every committed reference vector (floats, narrow integers,
//! packed bytes), and format names. One test binary (`cargo test -p
//! bitpack-tests --test suite_formats`); each module is the file of the same
//! name beside this one.

mod block_core;
mod block_f32;
mod block_layout;
mod conformance_files;
mod device_kernels;
mod float_bulk;
mod float_conformance;
mod float_formats;
mod float_mx;
mod float_wide;
mod format_names;
mod narrow_int_conformance;
mod packing_conformance;
#[cfg(feature = "rayon")]
mod parallel;
