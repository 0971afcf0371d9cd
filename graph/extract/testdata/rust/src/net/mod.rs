// Exercises: a mod.rs module (core::net), a submodule declaration, an
// enum, a trait with a required and a provided method, pub(crate).

pub mod client;

/// Errors a connection can end with.
#[derive(Debug, Clone, PartialEq)]
pub enum NetError {
    Timeout,
    Refused(String),
}

/// Anything that can carry bytes.
pub trait Transport {
    /// Sends bytes, returning how many were written.
    fn transmit(&mut self, data: &[u8]) -> Result<usize, NetError>;

    /// Sends everything or fails.
    fn transmit_all(&mut self, data: &[u8]) -> Result<(), NetError> {
        let n = self.transmit(data)?;
        if n < data.len() {
            Err(NetError::Timeout)
        } else {
            Ok(())
        }
    }
}

pub(crate) const DEFAULT_PORT: u16 = 7000;
