//! Launches the example kernel (`../kernel-crate`, `scale_e2m1`) through
//! `cudarc` and checks every output against `bitpack` on the host.
//!
//! Without a GPU (no driver library, no device) it prints why and exits 0;
//! with `BITPACK_REQUIRE_GPU=1` that is a failure (exit 1).

use std::process::ExitCode;

use bitpack::DevicePtr;
use bitpack::formats::{E2M1, Mode, encode_slice};
use cudarc::driver::{CudaContext, DevicePtr as _, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

// The argument struct, the same file the kernel crate compiles.
#[path = "../../kernel-crate/src/args.rs"]
mod args;
use args::{Fp4x8, ScaleArgs};

/// The kernel built for every GPU from compute capability 8.0 ...
const PTX_SM80: &str = include_str!("../../kernel-crate/target/ptx/kernel-crate-sm_80.ptx");
/// ... and for exactly 10.0, where it encodes with the FP4 `cvt`.
const PTX_SM100A: &str = include_str!("../../kernel-crate/target/ptx/kernel-crate-sm_100a.ptx");

/// Why the check did not run or did not pass.
enum Stop {
    /// No usable GPU: a skip, unless `BITPACK_REQUIRE_GPU=1`.
    NoGpu(String),
    /// A driver call failed or a result differs.
    Fail(String),
}

fn main() -> ExitCode {
    match run() {
        Ok(msg) => {
            println!("{msg}");
            ExitCode::SUCCESS
        }
        Err(Stop::NoGpu(why)) => {
            if std::env::var_os("BITPACK_REQUIRE_GPU").is_some_and(|v| v == "1") {
                eprintln!("kernel-host: FAIL: no usable GPU ({why}) and BITPACK_REQUIRE_GPU=1");
                ExitCode::FAILURE
            } else {
                println!("kernel-host: skipped: no usable GPU ({why}); the kernel did not run");
                ExitCode::SUCCESS
            }
        }
        Err(Stop::Fail(why)) => {
            eprintln!("kernel-host: FAIL: {why}");
            ExitCode::FAILURE
        }
    }
}

/// `scale_e2m1` on the host, with `bitpack`'s decode table and encoder: the
/// eight lanes of `x` (lane `k` in bits `4k..4k + 4`) times `scale`, encoded
/// saturating.
fn reference(x: u32, scale: f32) -> u32 {
    let scaled: Vec<f32> = (0..8)
        .map(|k| E2M1::from_bits(((x >> (4 * k)) & 0xf) as u8).to_f32() * scale)
        .collect();
    let mut codes = [E2M1::ZERO; 8];
    encode_slice(&scaled, Mode::SatFinite, &mut codes).expect("8 values into 8 codes");
    codes
        .iter()
        .enumerate()
        .fold(0, |acc, (k, c)| acc | (u32::from(c.to_bits()) << (4 * k)))
}

/// Inputs that hold every pair of codes in every lane, then a varied tail.
fn inputs(groups: usize) -> Vec<u32> {
    let mut state = 0x9e37_79b9u32;
    (0..groups)
        .map(|i| {
            if i < 256 {
                // Byte i in every byte: all 256 code pairs.
                (i as u32) * 0x0101_0101
            } else {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state
            }
        })
        .collect()
}

fn run() -> Result<String, Stop> {
    // SAFETY: `is_culib_present` only tries to open the driver library by
    // its usual names (libloading), which has no precondition.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(Stop::NoGpu(
            "the CUDA driver library (libcuda.so) is not installed".into(),
        ));
    }
    let ctx = CudaContext::new(0).map_err(|e| Stop::NoGpu(format!("device 0: {e}")))?;
    let fail = |what: &'static str| {
        move |e: cudarc::driver::DriverError| Stop::Fail(format!("{what}: {e}"))
    };
    let (major, minor) = ctx
        .compute_capability()
        .map_err(fail("compute capability"))?;
    if major < 8 {
        return Err(Stop::NoGpu(format!(
            "compute capability {major}.{minor}, the kernel needs 8.0"
        )));
    }
    let (target, ptx) = if (major, minor) == (10, 0) {
        ("sm_100a", PTX_SM100A)
    } else {
        ("sm_80", PTX_SM80)
    };
    let module = ctx
        .load_module(Ptx::from_src(ptx))
        .map_err(fail("loading the PTX"))?;
    let kernel = module
        .load_function("scale_e2m1")
        .map_err(fail("scale_e2m1"))?;
    let stream = ctx.default_stream();

    let groups = 1 << 16;
    let host = inputs(groups);
    let x = stream
        .clone_htod(&host)
        .map_err(fail("copying the input"))?;
    let y = stream
        .alloc_zeros::<u32>(groups)
        .map_err(fail("allocating the output"))?;
    let (x_addr, y_addr) = (x.device_ptr(&stream).0, y.device_ptr(&stream).0);
    for scale in [1.0f32, 1.5, -0.75, 4.0, 0.1] {
        let args = ScaleArgs {
            x: DevicePtr::<Fp4x8>::new(x_addr),
            y: DevicePtr::<Fp4x8>::new(y_addr),
            groups: groups as u64,
            scale,
        };
        let mut launch = stream.launch_builder(&kernel);
        // `ScaleArgs` derives `DeviceCopy`, which makes it a `DeviceRepr`:
        // no `unsafe impl` for the argument.
        launch.arg(&args);
        // SAFETY: `scale_e2m1` takes one `ScaleArgs` (the same file on both
        // sides) and touches `groups` words of `x` and `y`, which hold that
        // many; one thread per group.
        unsafe { launch.launch(LaunchConfig::for_num_elems(groups as u32)) }
            .map_err(fail("launching scale_e2m1"))?;
        let out = stream.clone_dtoh(&y).map_err(fail("copying the output"))?;
        for (i, (&got, &x)) in out.iter().zip(&host).enumerate() {
            let want = reference(x, scale);
            if got != want {
                let lanes = |w: u32| Fp4x8::from_raw_bits(w).to_array().map(|c| c.to_f32());
                return Err(Stop::Fail(format!(
                    "{target}, scale {scale}: group {i} of {groups}: input {x:#010x} {:?}, \
                     device {got:#010x} {:?}, host {want:#010x} {:?}",
                    lanes(x),
                    lanes(got),
                    lanes(want)
                )));
            }
        }
    }
    Ok(format!(
        "kernel-host: scale_e2m1 ({target} PTX on compute capability {major}.{minor}) equals the \
         host for {groups} groups x 5 scales"
    ))
}
