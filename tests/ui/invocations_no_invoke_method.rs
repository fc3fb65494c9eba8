use lineup::lineup_derive::invocations;

struct Counter;

#[invocations]
impl Counter {
    fn get(&self) -> u32 {
        0
    }
}

fn main() {}
