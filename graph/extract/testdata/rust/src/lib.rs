// Exercises: the crate root (module "core"), `mod x;` declarations as
// submodules, an inline module with an inner doc, pub use re-exports
// (grouped, with self and a rename), extern crate, #[macro_export] and a
// call into an inline module.

pub mod net;
pub mod retry;

mod util {
    //! Helpers private to the crate.

    /// Clamps n to at most max.
    pub(crate) fn clamp(n: u32, max: u32) -> u32 {
        if n > max {
            max
        } else {
            n
        }
    }
}

extern crate alloc as heap;

pub use crate::net::client::Client;
pub use retry::{self as backoff, Backoff};

/// Logs a line with the crate's prefix.
#[macro_export]
macro_rules! log_line {
    ($($arg:tt)*) => { println!("core: {}", format!($($arg)*)) };
}

/// Connects once with the default backoff.
pub fn connect_once(addr: &str) -> bool {
    let mut c = Client::new(addr);
    log_line!("connecting to {}", addr);
    c.connect().is_ok() && util::clamp(1, 2) == 1
}
