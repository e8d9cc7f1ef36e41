//! Driver errors as [`Error::Device`]: the `CUresult` kept as the code, the
//! driver's name for it (`CUDA_ERROR_INVALID_PTX`) and a short description
//! in the message, from a table that needs no driver (so an error is named
//! the same whether or not the library that raised it can still be asked).

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use std::sync::Mutex;

use cudarc::driver::{DriverError, sys};

use crate::Error;

/// `(code, name)` for every `CUresult` of the driver API the crate is built
/// against: the names are the enumeration's own (`stringify!`), so neither
/// half can drift from the other.
macro_rules! codes {
    ($($name:ident,)+) => {
        const NAMES: &[(u32, &str)] = &[$((sys::CUresult::$name as u32, stringify!($name))),+];
    };
}

codes!(
    CUDA_ERROR_INVALID_VALUE,
    CUDA_ERROR_OUT_OF_MEMORY,
    CUDA_ERROR_NOT_INITIALIZED,
    CUDA_ERROR_DEINITIALIZED,
    CUDA_ERROR_PROFILER_DISABLED,
    CUDA_ERROR_PROFILER_NOT_INITIALIZED,
    CUDA_ERROR_PROFILER_ALREADY_STARTED,
    CUDA_ERROR_PROFILER_ALREADY_STOPPED,
    CUDA_ERROR_STUB_LIBRARY,
    CUDA_ERROR_DEVICE_UNAVAILABLE,
    CUDA_ERROR_NO_DEVICE,
    CUDA_ERROR_INVALID_DEVICE,
    CUDA_ERROR_DEVICE_NOT_LICENSED,
    CUDA_ERROR_INVALID_IMAGE,
    CUDA_ERROR_INVALID_CONTEXT,
    CUDA_ERROR_CONTEXT_ALREADY_CURRENT,
    CUDA_ERROR_MAP_FAILED,
    CUDA_ERROR_UNMAP_FAILED,
    CUDA_ERROR_ARRAY_IS_MAPPED,
    CUDA_ERROR_ALREADY_MAPPED,
    CUDA_ERROR_NO_BINARY_FOR_GPU,
    CUDA_ERROR_ALREADY_ACQUIRED,
    CUDA_ERROR_NOT_MAPPED,
    CUDA_ERROR_NOT_MAPPED_AS_ARRAY,
    CUDA_ERROR_NOT_MAPPED_AS_POINTER,
    CUDA_ERROR_ECC_UNCORRECTABLE,
    CUDA_ERROR_UNSUPPORTED_LIMIT,
    CUDA_ERROR_CONTEXT_ALREADY_IN_USE,
    CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
    CUDA_ERROR_INVALID_PTX,
    CUDA_ERROR_INVALID_GRAPHICS_CONTEXT,
    CUDA_ERROR_NVLINK_UNCORRECTABLE,
    CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
    CUDA_ERROR_JIT_COMPILATION_DISABLED,
    CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY,
    CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC,
    CUDA_ERROR_CONTAINED,
    CUDA_ERROR_INVALID_SOURCE,
    CUDA_ERROR_FILE_NOT_FOUND,
    CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND,
    CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,
    CUDA_ERROR_OPERATING_SYSTEM,
    CUDA_ERROR_INVALID_HANDLE,
    CUDA_ERROR_ILLEGAL_STATE,
    CUDA_ERROR_LOSSY_QUERY,
    CUDA_ERROR_NOT_FOUND,
    CUDA_ERROR_NOT_READY,
    CUDA_ERROR_ILLEGAL_ADDRESS,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
    CUDA_ERROR_LAUNCH_TIMEOUT,
    CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING,
    CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
    CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
    CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE,
    CUDA_ERROR_CONTEXT_IS_DESTROYED,
    CUDA_ERROR_ASSERT,
    CUDA_ERROR_TOO_MANY_PEERS,
    CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
    CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
    CUDA_ERROR_HARDWARE_STACK_ERROR,
    CUDA_ERROR_ILLEGAL_INSTRUCTION,
    CUDA_ERROR_MISALIGNED_ADDRESS,
    CUDA_ERROR_INVALID_ADDRESS_SPACE,
    CUDA_ERROR_INVALID_PC,
    CUDA_ERROR_LAUNCH_FAILED,
    CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
    CUDA_ERROR_TENSOR_MEMORY_LEAK,
    CUDA_ERROR_NOT_PERMITTED,
    CUDA_ERROR_NOT_SUPPORTED,
    CUDA_ERROR_SYSTEM_NOT_READY,
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
    CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
    CUDA_ERROR_MPS_CONNECTION_FAILED,
    CUDA_ERROR_MPS_RPC_FAILURE,
    CUDA_ERROR_MPS_SERVER_NOT_READY,
    CUDA_ERROR_MPS_MAX_CLIENTS_REACHED,
    CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED,
    CUDA_ERROR_MPS_CLIENT_TERMINATED,
    CUDA_ERROR_CDP_NOT_SUPPORTED,
    CUDA_ERROR_CDP_VERSION_MISMATCH,
    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
    CUDA_ERROR_STREAM_CAPTURE_MERGE,
    CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
    CUDA_ERROR_STREAM_CAPTURE_UNJOINED,
    CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
    CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
    CUDA_ERROR_CAPTURED_EVENT,
    CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
    CUDA_ERROR_TIMEOUT,
    CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
    CUDA_ERROR_EXTERNAL_DEVICE,
    CUDA_ERROR_INVALID_CLUSTER_SIZE,
    CUDA_ERROR_FUNCTION_NOT_LOADED,
    CUDA_ERROR_INVALID_RESOURCE_TYPE,
    CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
    CUDA_ERROR_KEY_ROTATION,
    CUDA_ERROR_UNKNOWN,
);

/// What the driver's documentation says a code means, for the codes this
/// crate's calls can meet (the rest are named only).
const MESSAGES: &[(&str, &str)] = &[
    ("CUDA_ERROR_INVALID_VALUE", "an argument is out of range"),
    ("CUDA_ERROR_OUT_OF_MEMORY", "out of device memory"),
    (
        "CUDA_ERROR_NOT_INITIALIZED",
        "the driver is not initialized",
    ),
    ("CUDA_ERROR_DEINITIALIZED", "the driver is shutting down"),
    (
        "CUDA_ERROR_STUB_LIBRARY",
        "the driver library is a stub, not the real driver",
    ),
    (
        "CUDA_ERROR_DEVICE_UNAVAILABLE",
        "the device is unavailable (exclusive or prohibited mode)",
    ),
    ("CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is present"),
    ("CUDA_ERROR_INVALID_DEVICE", "no device of that ordinal"),
    ("CUDA_ERROR_INVALID_IMAGE", "the module image is not valid"),
    ("CUDA_ERROR_INVALID_CONTEXT", "no valid context is current"),
    (
        "CUDA_ERROR_NO_BINARY_FOR_GPU",
        "the module has no code for this device",
    ),
    ("CUDA_ERROR_INVALID_PTX", "PTX JIT compilation failed"),
    (
        "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
        "the PTX JIT compiler library was not found",
    ),
    (
        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
        "the PTX ISA version or target is newer than the driver supports",
    ),
    (
        "CUDA_ERROR_JIT_COMPILATION_DISABLED",
        "PTX JIT compilation is disabled",
    ),
    (
        "CUDA_ERROR_INVALID_SOURCE",
        "the device kernel source is invalid",
    ),
    (
        "CUDA_ERROR_INVALID_HANDLE",
        "a resource handle is not valid",
    ),
    ("CUDA_ERROR_NOT_FOUND", "a named symbol was not found"),
    (
        "CUDA_ERROR_NOT_READY",
        "asynchronous work has not completed yet",
    ),
    (
        "CUDA_ERROR_ILLEGAL_ADDRESS",
        "a kernel accessed an illegal address",
    ),
    (
        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
        "too many resources requested for the launch",
    ),
    (
        "CUDA_ERROR_LAUNCH_TIMEOUT",
        "the kernel ran past the watchdog timeout",
    ),
    (
        "CUDA_ERROR_ILLEGAL_INSTRUCTION",
        "a kernel executed an illegal instruction",
    ),
    (
        "CUDA_ERROR_MISALIGNED_ADDRESS",
        "a kernel accessed a misaligned address",
    ),
    ("CUDA_ERROR_LAUNCH_FAILED", "a kernel failed while running"),
    ("CUDA_ERROR_NOT_PERMITTED", "the operation is not permitted"),
    (
        "CUDA_ERROR_NOT_SUPPORTED",
        "the operation is not supported on this device",
    ),
    (
        "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
        "the driver and kernel-mode driver versions differ",
    ),
    (
        "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
        "the operation is not permitted while the stream is captured",
    ),
    (
        "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
        "the stream capture was invalidated",
    ),
    (
        "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
        "a captured stream depends on work outside the capture",
    ),
    (
        "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
        "the capture would touch the legacy default stream",
    ),
    ("CUDA_ERROR_UNKNOWN", "an unknown internal error"),
];

/// The driver's name of the `CUresult` `code` (`218` is
/// `"CUDA_ERROR_INVALID_PTX"`), or `None` for a code the driver API the
/// crate is built against does not have.
pub fn error_name(code: u32) -> Option<&'static str> {
    NAMES.iter().find(|(c, _)| *c == code).map(|(_, n)| *n)
}

/// A short description of the `CUresult` `code` (`218`: "PTX JIT
/// compilation failed"), for the codes the crate's calls can meet; `None`
/// for the others.
pub fn error_message(code: u32) -> Option<&'static str> {
    let name = error_name(code)?;
    MESSAGES.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}

/// `call: NAME (message)` for the code of a failed driver call, as the text
/// of an [`Error::Device`]: `cuModuleLoadData: CUDA_ERROR_INVALID_PTX (PTX
/// JIT compilation failed)`; `code N` for a code without a name.
pub(super) fn describe(call: &str, code: u32) -> String {
    match (error_name(code), error_message(code)) {
        (Some(n), Some(m)) => format!("{call}: {n} ({m})"),
        (Some(n), None) => format!("{call}: {n}"),
        (None, _) => format!("{call}: code {code}"),
    }
}

/// The [`Error::Device`] of driver call `call` failing with `code`. The
/// text is kept once per pair of call and code (the calls are this
/// module's literals and the codes the driver's enumeration, so what is
/// kept stays a few short strings).
pub(super) fn device_error(call: &'static str, code: u32) -> Error {
    static NAMED: Mutex<BTreeMap<(&'static str, u32), &'static str>> = Mutex::new(BTreeMap::new());
    let mut named = NAMED.lock().unwrap_or_else(|p| p.into_inner());
    let text = named
        .entry((call, code))
        .or_insert_with(|| Box::leak(describe(call, code).into_boxed_str()));
    Error::Device {
        call: text,
        code: Some(code),
    }
}

/// The [`Error::Device`] of a failed driver `call`, for `map_err`.
pub(super) fn driver(call: &'static str) -> impl Fn(DriverError) -> Error {
    move |e| device_error(call, e.0 as u32)
}

/// Whether a failed module load means that the driver cannot take this
/// PTX build (an ISA version or target newer than it knows, or no code for
/// the device), so that an older build may still load.
pub(super) fn is_too_new(code: u32) -> bool {
    [
        sys::CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
        sys::CUresult::CUDA_ERROR_INVALID_PTX,
        sys::CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU,
    ]
    .iter()
    .any(|c| *c as u32 == code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn codes_map_to_the_drivers_names_and_messages() {
        for (code, name) in [
            (1, "CUDA_ERROR_INVALID_VALUE"),
            (2, "CUDA_ERROR_OUT_OF_MEMORY"),
            (100, "CUDA_ERROR_NO_DEVICE"),
            (209, "CUDA_ERROR_NO_BINARY_FOR_GPU"),
            (218, "CUDA_ERROR_INVALID_PTX"),
            (222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"),
            (700, "CUDA_ERROR_ILLEGAL_ADDRESS"),
            (719, "CUDA_ERROR_LAUNCH_FAILED"),
            (901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"),
            (999, "CUDA_ERROR_UNKNOWN"),
        ] {
            assert_eq!(error_name(code), Some(name), "{code}");
            assert!(error_message(code).is_some(), "{name}");
        }
        assert_eq!(error_name(0), None); // CUDA_SUCCESS is no error
        assert_eq!(error_name(12345), None);
        assert_eq!(error_name(5), Some("CUDA_ERROR_PROFILER_DISABLED"));
        assert_eq!(error_message(5), None);
        assert_eq!(
            describe("cuModuleLoadData", 218),
            "cuModuleLoadData: CUDA_ERROR_INVALID_PTX (PTX JIT compilation failed)"
        );
        assert_eq!(
            describe("cuCtxCreate", 5),
            "cuCtxCreate: CUDA_ERROR_PROFILER_DISABLED"
        );
        assert_eq!(describe("cuCtxCreate", 12345), "cuCtxCreate: code 12345");
        let e = device_error("cuMemAlloc", 2);
        assert_eq!(
            e,
            Error::Device {
                call: "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of device memory)",
                code: Some(2)
            }
        );
        assert_eq!(
            e.to_string(),
            "CUDA driver error 2 in cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of device memory)"
        );
        // The same text each time: kept once, not leaked per error.
        let Error::Device { call: a, .. } = device_error("cuMemAlloc", 2) else {
            unreachable!()
        };
        let Error::Device { call: b, .. } = device_error("cuMemAlloc", 2) else {
            unreachable!()
        };
        assert!(core::ptr::eq(a, b));
        // Every message is for a named code, and names are unique.
        for (n, _) in MESSAGES {
            assert!(NAMES.iter().any(|(_, m)| m == n), "{n}");
        }
        for (i, (c, _)) in NAMES.iter().enumerate() {
            assert!(NAMES[i + 1..].iter().all(|(d, _)| d != c));
        }
        assert!(is_too_new(222) && is_too_new(218) && is_too_new(209));
        assert!(!is_too_new(2) && !is_too_new(200));
    }
}
