//! `#[derive(DeviceCopy)]` types are `cudarc` kernel arguments (`DeviceRepr`)
//! with the `cuda` feature, with no `unsafe impl` in the user's code:
//! concrete and generic types are pushed with `launch_builder(&f).arg(&v)`,
//! and where a GPU is present a kernel copies a derived struct's parameter
//! bytes back, field by field. Without a GPU the device part prints why it
//! was skipped (`BITPACK_REQUIRE_GPU=1` makes that a failure).
#![cfg(feature = "cuda")]

use bitpack::{DeviceCopy, DevicePtr};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

/// A kernel's arguments: a device address, a count, a float and a flag
/// (followed by seven padding bytes, which the derive tolerates).
#[derive(Clone, Copy, Debug, DeviceCopy)]
#[repr(C)]
struct Params {
    out: DevicePtr<u64>,
    scale: f32,
    n: u32,
    flag: bool,
}

/// A generic argument: a `DeviceRepr` wherever `T: DeviceCopy`.
#[derive(Clone, Copy, Debug, DeviceCopy)]
#[repr(C)]
struct Pair<T> {
    a: T,
    b: T,
}

/// An enum with an integer repr.
#[derive(Clone, Copy, Debug, DeviceCopy)]
#[repr(u32)]
enum Op {
    Add = 1,
    Mul = 2,
}

fn assert_device_repr<T: DeviceRepr>() {}

/// Compiles only if every type is a `cudarc` kernel argument.
#[allow(dead_code)]
fn push_all(stream: &CudaStream, f: &CudaFunction, p: &Params, q: &Pair<f32>, op: &Op) {
    let mut launch = stream.launch_builder(f);
    launch.arg(p).arg(q).arg(op);
}

#[test]
fn derived_types_are_kernel_arguments() {
    assert_device_repr::<Params>();
    assert_device_repr::<Pair<f32>>();
    assert_device_repr::<Pair<Pair<u8>>>();
    assert_device_repr::<Op>();
    assert_eq!(size_of::<Params>(), 24);
    assert_eq!(Op::Add as u32 + Op::Mul as u32, 3);
}

/// `copy_params(Params p)`: `out[0..3]` = the three 8-byte words of `p`,
/// read from the kernel's parameter space.
const COPY_PARAMS: &str = r#"
.version 7.0
.target sm_80
.address_size 64

.visible .entry copy_params(.param .align 8 .b8 copy_params_param_0[24])
{
    .reg .b64 %rd<5>;
    ld.param.u64 %rd4, [copy_params_param_0];
    cvta.to.global.u64 %rd1, %rd4;
    ld.param.u64 %rd2, [copy_params_param_0+8];
    ld.param.u64 %rd3, [copy_params_param_0+16];
    st.global.u64 [%rd1], %rd4;
    st.global.u64 [%rd1+8], %rd2;
    st.global.u64 [%rd1+16], %rd3;
    ret;
}
"#;

#[test]
fn a_derived_struct_reaches_the_kernel_byte_for_byte() {
    if !driver_present() {
        let msg = "skipped: no CUDA driver library; the kernel launch did not run";
        assert!(
            std::env::var_os("BITPACK_REQUIRE_GPU").is_none_or(|v| v != "1"),
            "{msg}"
        );
        eprintln!("{msg}");
        return;
    }
    let ctx = match CudaContext::new(0) {
        Ok(c) => c,
        Err(e) => {
            let msg = format!("skipped: no usable GPU ({e}); the kernel launch did not run");
            assert!(
                std::env::var_os("BITPACK_REQUIRE_GPU").is_none_or(|v| v != "1"),
                "{msg}"
            );
            eprintln!("{msg}");
            return;
        }
    };
    let stream = ctx.default_stream();
    let module = ctx.load_module(Ptx::from_src(COPY_PARAMS)).unwrap();
    let f = module.load_function("copy_params").unwrap();
    let out = stream.alloc_zeros::<u64>(3).unwrap();
    let addr = {
        use cudarc::driver::DevicePtr as _;
        out.device_ptr(&stream).0
    };
    for (scale, n, flag) in [
        (1.5f32, 7u32, true),
        (-0.0, u32::MAX, false),
        (f32::MIN_POSITIVE, 0, true),
    ] {
        let p = Params {
            out: DevicePtr::new(addr),
            scale,
            n,
            flag,
        };
        let mut launch = stream.launch_builder(&f);
        launch.arg(&p);
        // SAFETY: `copy_params` takes one 24-byte, 8-aligned parameter, which
        // `Params` is, and writes 24 bytes at `p.out`, which `out` holds.
        unsafe { launch.launch(LaunchConfig::for_num_elems(1)) }.unwrap();
        let got = stream.clone_dtoh(&out).unwrap();
        assert_eq!(got[0], addr);
        assert_eq!(got[1], u64::from(scale.to_bits()) | (u64::from(n) << 32));
        // Byte 16 is `flag`; bytes 17..24 are padding.
        assert_eq!(got[2] & 0xff, u64::from(flag));
    }
}

/// Whether the CUDA driver library loads.
fn driver_present() -> bool {
    // SAFETY: `is_culib_present` only tries to open the driver library by
    // its usual names (libloading), which has no precondition.
    unsafe { cudarc::driver::sys::is_culib_present() }
}
