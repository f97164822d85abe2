//! Calling Python code from Rust on a thread that may still be running when the interpreter ends.
//!
//! Before Python 3.14, a thread that is not the main thread and asks for the GIL while the
//! interpreter finalizes is ended with `pthread_exit`: a forced unwind. If Rust frames are on its
//! stack, the unwind reaches pyo3's `catch_unwind` (glibc aborts: "FATAL: exception not
//! rethrown") or an attach guard's `PyGILState_Release` ("Fatal Python error:
//! PyGILState_Release: thread state … must be current when releasing"). A daemon thread inside
//! `Engine.dispatch` gets there when it runs Python code called from Rust (`json.dumps` with
//! `default=str`, `json.loads`): the eval loop hands the GIL to the finalizing main thread and
//! the thread is ended when it asks for it back.
//!
//! The decision: **such calls go through [`call`], which parks the thread forever instead of
//! unwinding**, as pyo3 already does for `PyEval_RestoreThread` at the end of `Python::detach`
//! (`pyo3_ffi::impl_::HangThread`) and as Python 3.14 itself does. The call is declared
//! `extern "C-unwind"` so the unwind may enter Rust at all, and the only frame between it and the
//! C code is the guard's, so no Rust destructor runs without the GIL. The process is exiting;
//! the parked thread holds nothing the exit needs.

use std::ptr;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

#[allow(
    clashing_extern_declarations,
    reason = "the same symbol as pyo3_ffi::PyObject_Call, declared C-unwind so a forced unwind may enter Rust"
)]
mod raw {
    use pyo3::ffi::PyObject;

    extern "C-unwind" {
        pub fn PyObject_Call(
            callable: *mut PyObject,
            args: *mut PyObject,
            kwargs: *mut PyObject,
        ) -> *mut PyObject;
    }
}

/// Parks the current thread forever when dropped: reached only by a forced unwind.
struct ParkForever;

impl Drop for ParkForever {
    fn drop(&mut self) {
        loop {
            std::thread::park();
        }
    }
}

/// `callable(*args, **kwargs)`; if the interpreter ends this thread meanwhile, the thread parks
/// forever instead of unwinding through Rust.
pub(crate) fn call<'py>(
    callable: &Bound<'py, PyAny>,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = kwargs.map_or(ptr::null_mut(), |k| k.as_ptr());
    let guard = ParkForever;
    // SAFETY: the thread is attached (a `Bound` is alive); the pointers are borrowed from live
    // objects for the duration of the call, and PyObject_Call returns a new reference or NULL
    // with an exception set.
    let out = unsafe { raw::PyObject_Call(callable.as_ptr(), args.as_ptr(), kwargs) };
    std::mem::forget(guard);
    // SAFETY: `out` is the owned result of the call above (or NULL with the error set).
    unsafe { Bound::from_owned_ptr_or_err(callable.py(), out) }
}
