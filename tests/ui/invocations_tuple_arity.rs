use lineup::lineup_derive::invocations;

struct Map;

#[invocations]
impl Map {
    #[invoke((1, "a"), (2, "b", true))]
    fn insert(&self, key: u32, value: &'static str) {
        let _ = (key, value);
    }
}

fn main() {}
