use lineup::lineup_derive::lineup_test;

struct Queue;

#[lineup_test(thread = 2)]
fn queue() -> Queue {
    Queue
}

fn main() {}
