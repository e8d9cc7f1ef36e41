//! Without `#[derive(DeviceCopy)]` a struct is no `cudarc` kernel argument:
//! the derive is what vouches for its layout.

use cudarc::driver::{CudaFunction, CudaStream, PushKernelArg};

#[derive(Clone, Copy)]
#[repr(C)]
struct Params {
    scale: f32,
    n: u32,
}

#[allow(dead_code)]
fn push(stream: &CudaStream, f: &CudaFunction, p: &Params) {
    let mut launch = stream.launch_builder(f);
    launch.arg(p);
}

fn main() {}
