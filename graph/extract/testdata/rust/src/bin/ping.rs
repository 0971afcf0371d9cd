// Exercises: a binary target (its own crate "ping") using the library
// crate by name, and a syntax-free main.

use core::net::client::Client;

fn main() {
    let mut c = Client::new("localhost");
    if c.connect().is_err() {
        std::process::exit(1);
    }
}
