//! A record through a re-export of the crate (`crate = "..."`), with every
//! key: its field constants, `Record`, `Default` and packed form all work.

mod facade {
    pub(crate) use ::bitpack as packing;
}

use facade::packing::arbitrary_int::{u3, u4};
use facade::packing::{BitElement, Packed, Record};

#[derive(Clone, Copy, Debug, PartialEq, facade::packing::BitElement)]
#[bitpack(crate = "facade::packing", record, default)]
struct Fields {
    a: u3,
    #[bitpack(reserved)]
    pad: bool,
    #[bitpack(at = 6, default = 9)]
    b: u4,
}

fn main() {
    assert_eq!(Fields::BITS, 10);
    let d = Fields::default();
    assert_eq!(d.raw_bits(), 9 << 6);
    assert_eq!(Packed::new(d).get(Fields::B), u4::new(9));
    assert!(Fields::try_from_raw_bits(1 << 4).is_err());
    let _ = u3::new(0);
}
