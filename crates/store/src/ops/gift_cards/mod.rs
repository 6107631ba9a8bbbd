//! Gift cards: products (`products.rs`).

mod products;
