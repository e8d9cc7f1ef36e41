//! A reference field holds a host address: `DeviceCopy` refuses the struct,
//! so it is no kernel argument either.

use bitpack::DeviceCopy;
use cudarc::driver::{CudaFunction, CudaStream, PushKernelArg};

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Params {
    scale: f32,
    table: &'static [f32; 4],
}

#[allow(dead_code)]
fn push(stream: &CudaStream, f: &CudaFunction, p: &Params) {
    let mut launch = stream.launch_builder(f);
    launch.arg(p);
}

fn main() {}
