//! What the tests that start the real `kairos serve` share.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use std::io::{BufRead, BufReader};
use std::process::Child;
use std::time::{Duration, Instant};

/// Reads the log of `child` (started with `--listen 127.0.0.1:0` and its standard error
/// piped) until it is ready, and answers the address it listens on. The log is then
/// drained on a thread of its own, so the server never blocks on a full pipe.
pub fn listening_address(child: &mut Child) -> String {
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut addr = String::new();
    while Instant::now() < deadline {
        let Some(Ok(line)) = lines.next() else { break };
        if let Some(rest) = line.split("listening on http://").nth(1) {
            addr = rest
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned();
        }
        if line.contains("ready; press Ctrl-C") {
            break;
        }
    }
    assert!(!addr.is_empty(), "the server did not start");
    std::thread::spawn(move || for _ in lines {});
    addr
}
