//! A tour of bitpack: run with `cargo run --example tour`.

use bitpack::{BitElement, NArray, NarrowArray};

/// An FP4 E2M1 code (1 sign, 2 exponent, 1 mantissa bit) in the low nibble of
/// a byte.
#[derive(Clone, Copy, PartialEq, BitElement)]
#[repr(transparent)]
#[bitwidth(4)]
struct Float4(u8);

impl Float4 {
    /// The value of the code.
    fn to_f32(self) -> f32 {
        const MAGNITUDES: [f32; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
        let m = MAGNITUDES[usize::from(self.0 & 0x7)];
        if self.0 & 0x8 != 0 { -m } else { m }
    }
}

impl core::fmt::Debug for Float4 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.to_f32())
    }
}

fn main() -> bitpack::Result<()> {
    println!("bitpack tour");
    println!("============");
    println!();

    // Elements: every type has a fixed number of value bits.
    println!("bool is {} bit, u16 is {} bits", bool::BITS, u16::BITS);
    println!("-2i16 as raw bits: {:#06x}", (-2i16).raw_bits());
    println!("Float4 is {} bits, stored in a byte", Float4::BITS);
    println!();

    // The value layout: Float4 values packed into one storage word, lane 0 in
    // the low bits, the order of PTX's packed `cvt` results.
    let codes = [0x2, 0x9, 0x7, 0x5].map(Float4);
    let lanes = NArray::<Float4, 4>::new(codes);
    println!("NArray<Float4, 4> {lanes:?}");
    println!(
        "  {} bytes, raw bits {:#06x}, bytes {:02x?}",
        size_of_val(&lanes),
        lanes.raw_bits(),
        lanes.as_bytes()
    );
    let negated: NArray<Float4, 4> = lanes.map(|x| Float4(x.0 ^ 0x8));
    println!(
        "  map(negate) {negated:?}, still packed: {:#06x}",
        negated.raw_bits()
    );
    println!();

    // The memory layout: the dense LSB-first byte stream, two codes a byte
    // (the order of torch.float4_e2m1fn_x2).
    let mut packed: NarrowArray<Float4> = (0..7).map(Float4).collect();
    packed.push(Float4(0xf));
    println!("NarrowArray<Float4> of {} values {packed:?}", packed.len());
    println!("  bytes {:02x?}", packed.as_bytes());
    packed.set(0, Float4(0x9))?;
    println!("  after set(0, -0.5): bytes {:02x?}", packed.as_bytes());

    // reinterpret keeps every bit and rescales the length, with no copy.
    let words = packed.clone().reinterpret::<u16>()?;
    println!("  as u16: {:04x?}", words.to_vec());
    let flags = packed.clone().reinterpret::<bool>()?;
    println!(
        "  as bool: {} values, {} set",
        flags.len(),
        flags.iter().filter(|&b| b).count()
    );
    let mut odd = packed;
    odd.truncate(3);
    match odd.reinterpret::<u8>() {
        Ok(_) => unreachable!("12 bits are not a whole number of bytes"),
        Err(e) => println!("  3 values as u8: error: {e}"),
    }

    // And back from plain bytes (checked: padding must be zero).
    let back = NarrowArray::<Float4>::from_bytes(&[0x92, 0x07], 3)?;
    println!("  from bytes [92, 07] as 3 values: {back:?}");

    mx_tour();
    device_tour();
    Ok(())
}

/// What a GPU kernel sees: the same functions, with the width as a constant.
fn device_tour() {
    use bitpack::formats::{E2M1, Mode};
    use bitpack::kernels::fixed;
    use bitpack::{DevicePtr, E4M3};

    println!();
    println!("On the GPU (see README: \"Using bitpack in your GPU kernels\")");
    println!("-----------------------------------------------------------");
    // `cvt.rn.satfinite.e4m3x2.f32 d, a, b` puts `b` in the low byte: an
    // NArray<E4M3, 2> is that register, lane 0 low.
    let d = fixed::encode_pair::<E4M3>(1.0, -2.0, Mode::SatFinite);
    let lanes = NArray::<E4M3, 2>::from_raw_bits(d);
    println!("e4m3x2 register {d:#06x} = lanes {:?}", lanes.to_array());
    // Eight FP4 values in one u32, as the example kernel crate loads them.
    let x =
        NArray::<E2M1, 8>::new([1.0f32, 2.0, 3.0, 4.0, -1.0, -2.0, 6.0, 0.5].map(E2M1::from_f32));
    println!("NArray<E2M1, 8> as one u32: {:#010x}", x.raw_bits());
    let args: DevicePtr<NArray<E2M1, 8>> = DevicePtr::new(0x7f00_0000_0000);
    println!(
        "a DevicePtr is a DeviceCopy u64: {args:?}, element 3 at {:?}",
        args.offset(3)
    );
    println!("the kernels of bitpack-ptx are in bitpack/ptx/ (sm_80, sm_90, sm_100a)");
}

/// Low-precision floats: quantize a small vector to MXFP4 and back.
fn mx_tour() {
    use bitpack::formats::{E2M1, MxArray};

    println!();
    println!("MXFP4: 4-bit E2M1 values sharing one power-of-two E8M0 scale");
    println!("-------------------------------------------------------------");
    let data = [
        0.03f32, -0.51, 1.2, 2.7, -3.3, 4.4, 0.0, 5.9, -7.9, 10.0, 0.26, -0.74,
    ];
    let mx = MxArray::<E2M1>::quantize(&data, &[data.len()]).expect("the shape holds the data");
    let scale = mx.scales().get(0).expect("one block");
    println!(
        "scale: E8M0 code {:#04x} = {} (2^(floor(log2(amax)) - 2))",
        scale.to_bits(),
        scale
    );
    println!(
        "packed values (element 0 in the low nibble): {:02x?}",
        mx.values().as_bytes()
    );
    let back = mx.dequantize();
    println!(
        "{:>8}  {:>4}  {:>6}  {:>8}  {:>7}",
        "input", "code", "E2M1", "output", "error"
    );
    for (i, (&x, &y)) in data.iter().zip(&back).enumerate() {
        let code = mx.values().get(i).expect("in bounds");
        println!(
            "{x:>8.3}  {:>#4x}  {:>6}  {y:>8.3}  {:>7.3}",
            code.to_bits(),
            code.to_f32(),
            y - x
        );
    }
}
