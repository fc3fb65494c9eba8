use lineup::lineup_derive::invocations;

struct Ring;
struct Producer;
struct Consumer;

#[invocations]
impl Ring {
    // The method that makes the handles is not an operation: no `#[invoke]`, no group.
    #[handles]
    #[invoke(group = "producer")]
    fn producer(&self) -> Producer {
        Producer
    }

    #[invoke(1)]
    fn push(&self, producer: &mut Producer, value: u32) {
        let _ = (producer, value);
    }
}

struct Channel;

#[invocations]
impl Channel {
    // A `&mut` first parameter is the thread's handle, but nothing makes one.
    #[invoke(group = "receiver")]
    fn recv(&self, receiver: &mut Consumer) -> Option<u32> {
        let _ = receiver;
        None
    }
}

struct Deque;

#[invocations]
impl Deque {
    #[handles]
    fn handle(&self) -> Producer {
        Producer
    }

    // The handle parameter must be the handle `#[handles]` makes.
    #[invoke(group = "owner")]
    fn pop(&self, worker: &mut Consumer) -> Option<u32> {
        let _ = worker;
        None
    }
}

fn main() {}
