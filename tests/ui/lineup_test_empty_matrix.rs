use lineup::lineup_derive::lineup_test;

struct Queue;

#[lineup_test(threads = 2, matrix = [])]
fn queue() -> Queue {
    Queue
}

fn main() {}
