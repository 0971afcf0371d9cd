// Exercises: design A.5 step 5's Backoff (core::retry) as written: an
// inner module doc, a use of an external crate, a derive, Self as a
// result type, a #[cfg(test)] inline module that globs super::*.

//! Exponential backoff implementation for retry logic.

use std::time::Duration;
use rand::Rng;

/// Configuration for exponential backoff.
#[derive(Debug, Clone)]
pub struct Backoff {
    initial_delay: Duration,
    max_delay: Duration,
    max_retries: u32,
    current_retry: u32,
}

impl Backoff {
    pub fn new(initial_delay: Duration, max_delay: Duration, max_retries: u32) -> Self {
        Self {
            initial_delay,
            max_delay,
            max_retries,
            current_retry: 0,
        }
    }

    /// Returns the next delay, or None if max retries exceeded.
    pub fn next_delay(&mut self) -> Option<Duration> {
        if self.current_retry >= self.max_retries {
            return None;
        }
        
        let base_delay = self.initial_delay.as_millis() as u64 
            * 2u64.pow(self.current_retry);
        let capped_delay = base_delay.min(self.max_delay.as_millis() as u64);
        
        // Add jitter: ±25%
        let jitter_range = capped_delay / 4;
        let jitter = rand::thread_rng().gen_range(0..=jitter_range * 2) as i64 
            - jitter_range as i64;
        let final_delay = (capped_delay as i64 + jitter).max(0) as u64;
        
        self.current_retry += 1;
        Some(Duration::from_millis(final_delay))
    }

    pub fn reset(&mut self) {
        self.current_retry = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_then_stops() {
        let mut b = Backoff::new(Duration::from_millis(1), Duration::from_millis(8), 2);
        assert!(b.next_delay().is_some());
        assert!(b.next_delay().is_some());
        assert_eq!(b.next_delay(), None);
    }
}
