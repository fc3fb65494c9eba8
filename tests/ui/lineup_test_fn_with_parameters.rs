use lineup::lineup_derive::lineup_test;

struct Queue;

#[lineup_test(threads = 2)]
fn queue(capacity: usize) -> Queue {
    let _ = capacity;
    Queue
}

fn main() {}
