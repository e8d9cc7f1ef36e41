//! Sets `cfg(simd_variants)` where the kernels have SIMD variants (and
//! `kernels::dispatch` a `simd` module): `std` on `x86_64`, or `std` on
//! little-endian `aarch64` with NEON. One name for the condition, so the
//! sources do not restate it.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(simd_variants)");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let std = std::env::var_os("CARGO_FEATURE_STD").is_some();
    let arch = var("CARGO_CFG_TARGET_ARCH");
    let neon = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "neon");
    let little = var("CARGO_CFG_TARGET_ENDIAN") == "little";
    if std && (arch == "x86_64" || (arch == "aarch64" && neon && little)) {
        println!("cargo::rustc-cfg=simd_variants");
    }
}
