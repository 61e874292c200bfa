//! Error codes with fastred's own messages: `MPI_Add_error_code` makes a code
//! in an existing class (so `MPI_Error_class` gives the standard class) and
//! `MPI_Add_error_string` attaches the text `MPI_Error_string` returns.

use crate::ffi;
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::Mutex;

static CODES: Mutex<Option<HashMap<(c_int, String), c_int>>> = Mutex::new(None);

/// An error code of class `class` whose message is `message` (created once per
/// distinct pair; the bare class if MPI cannot add codes).
pub fn code_for(class: c_int, message: &str) -> c_int {
    let Ok(mut guard) = CODES.lock() else { return class };
    let codes = guard.get_or_insert_with(HashMap::new);
    if let Some(code) = codes.get(&(class, message.to_string())) {
        return *code;
    }
    let mut code = class;
    let text = std::ffi::CString::new(format!("fastred: {message}")).unwrap_or_default();
    // SAFETY: out-pointer to a local; NUL-terminated string.
    let ok = unsafe {
        ffi::PMPI_Add_error_code(class, &mut code) == ffi::SUCCESS && ffi::PMPI_Add_error_string(code, text.as_ptr()) == ffi::SUCCESS
    };
    if !ok {
        code = class;
    }
    codes.insert((class, message.to_string()), code);
    code
}
