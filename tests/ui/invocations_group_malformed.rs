use lineup::lineup_derive::invocations;

struct Channel;

#[invocations]
impl Channel {
    #[invoke(group = consumer)]
    fn recv(&self) -> Option<u32> {
        None
    }

    #[invoke(group = "")]
    fn try_recv(&self) -> Option<u32> {
        None
    }

    #[invoke(1, group = "producer", group = "sender")]
    fn send(&self, value: u32) {
        let _ = value;
    }
}

fn main() {}
