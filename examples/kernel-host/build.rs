//! Fails with the command to run when the kernel crate's PTX is missing
//! (`src/main.rs` embeds it with `include_str!`).

use std::path::Path;

fn main() {
    for t in ["sm_80", "sm_100a"] {
        let ptx = format!("../kernel-crate/target/ptx/kernel-crate-{t}.ptx");
        println!("cargo::rerun-if-changed={ptx}");
        if !Path::new(&ptx).exists() {
            panic!("{ptx} is missing: run ../kernel-crate/build.sh first (README.md)");
        }
    }
}
