//! `crate = "..."` names a facade that re-exports the real traits but
//! replaces the helpers generated code might call with no-ops. The field
//! checks go through the implemented trait itself, so a reference and a raw
//! pointer are still rejected.

#[allow(dead_code, unused_imports)]
mod facade {
    pub use bitpack::*;

    pub mod __private {
        pub use bitpack::__private::*;

        /// Accepts every type.
        pub const fn assert_device_copy<T>() {}

        pub mod core {
            pub use ::core::*;

            /// Asserts nothing.
            #[macro_export]
            macro_rules! __facade_assert {
                ($($t:tt)*) => {
                    ()
                };
            }
            pub use __facade_assert as assert;
        }
    }
}

use facade::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
#[bitpack(crate = "facade")]
#[repr(C)]
struct Handles {
    r: &'static u32,
    p: *mut u8,
}

fn main() {}
