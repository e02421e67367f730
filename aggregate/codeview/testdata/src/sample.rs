//! Crate docs for the sample.

use std::collections::HashMap;
use std::fmt;

/// Maximum number of items.
pub const MAX: usize = 64;
static GREETING: &str = "hi";

/// A point.
#[derive(Debug, Clone)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

pub enum Shape {
    Circle(f64),
    Square { side: f64 },
}

pub trait Area {
    fn area(&self) -> f64;
    fn describe(&self) -> String {
        format!("area {}", self.area())
    }
}

impl Point {
    /// Creates a point.
    pub fn new(x: i32, y: i32) -> Self {
        Point { x, y }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "```({}, {})", self.x, self.y)
    }
}

mod geometry {
    pub fn origin() -> super::Point {
        let make = |x| super::Point::new(x, x);
        make(0)
    }
}

type Table = HashMap<String, Point>;

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

fn main() {
    let p = Point::new(1, 2);
    println!("{}", p);
}
