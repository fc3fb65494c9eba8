use lineup::lineup_derive::invocations;

struct Counter {
    value: u32,
}

#[invocations]
impl Counter {
    #[invoke]
    fn inc(&mut self) {
        self.value += 1;
    }
}

fn main() {}
