//! `bytemuck::Zeroable::zeroed()` as a constructor of an `NArray` whose
//! storage breaks the rule (4 bytes of lanes in a 2-byte `u16`): it checks
//! the rule like every other constructor, and so does every read of an
//! array zeroed in memory directly.

use bitpack::NArray;

fn main() {
    let a: NArray<u8, 4, u16> = bytemuck::Zeroable::zeroed();
    let boxed: Box<NArray<u8, 4, u16>> = bytemuck::zeroed_box();
    let _ = (a, boxed.get(3));
}
