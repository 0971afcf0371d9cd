// Exercises: an integration test (its own crate "connect") calling the
// library through a re-export and a full path.

use core::Backoff;

#[test]
fn connect_once_fails_without_server() {
    assert!(!core::connect_once("127.0.0.1:1"));
    let _ = Backoff::new(std::time::Duration::ZERO, std::time::Duration::ZERO, 0);
}
