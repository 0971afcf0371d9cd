// Exercises: a struct and its inherent impl (new; connect calling
// Backoff::new and self.send; private send), impls of an imported trait,
// of a local trait and of a std trait by path, macro_rules!, a const and a
// static, /// and /** */ doc comments, use of std, crate, super and glob
// paths, Self::new and Type::method calls, locals shadowing nothing.

use std::fmt;
use std::time::Duration;

use super::super::retry::*;
use super::{NetError, Transport, DEFAULT_PORT};
use crate::retry::Backoff;

/// Attempts before connect gives up.
pub const MAX_ATTEMPTS: u32 = 5;

/** Connections opened since start. */
pub static mut OPENED: u32 = 0;

/// A client of one server.
///
/// It retries with exponential backoff.
#[derive(Debug)]
pub struct Client {
    addr: String,
    port: u16,
    backoff: Backoff,
    timeout: Duration,
}

/// Something that can be closed.
pub(crate) trait Closer {
    fn close(&mut self);
}

macro_rules! trace {
    ($msg:expr) => {
        eprintln!("client: {}", $msg)
    };
}

impl Client {
    /// Creates a client for addr.
    pub fn new(addr: &str) -> Self {
        Self {
            addr: addr.to_string(),
            port: DEFAULT_PORT,
            backoff: Backoff::new(Duration::from_millis(100), Duration::from_secs(10), MAX_ATTEMPTS),
            timeout: Duration::from_secs(1),
        }
    }

    /// Connects, retrying with backoff.
    pub fn connect(&mut self) -> Result<(), NetError> {
        let mut backoff = Backoff::new(self.timeout, Duration::from_secs(30), MAX_ATTEMPTS);
        while let Some(delay) = backoff.next_delay() {
            trace!(format_addr(&self.addr, self.port));
            if self.send(b"hello").is_ok() {
                unsafe {
                    OPENED += 1;
                }
                return Ok(());
            }
            std::thread::sleep(delay);
        }
        Err(NetError::Timeout)
    }

    fn send(&mut self, data: &[u8]) -> Result<usize, NetError> {
        if data.is_empty() {
            return Err(NetError::Refused(self.addr.clone()));
        }
        Ok(data.len())
    }

    pub(super) fn with_port(addr: &str, port: u16) -> Client {
        let mut c = Self::new(addr);
        c.port = port;
        c
    }
}

impl Transport for Client {
    fn transmit(&mut self, data: &[u8]) -> Result<usize, NetError> {
        Client::send(self, data)
    }
}

impl Closer for Client {
    fn close(&mut self) {
        self.backoff.reset();
    }
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", format_addr(&self.addr, self.port))
    }
}

fn format_addr(addr: &str, port: u16) -> String {
    format!("{}:{}", addr, port)
}
