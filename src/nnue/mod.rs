//! The network evaluation (NNUE): a perspective net, 768 inputs → N hidden (×2) → 1.
//!
//! Owns the net file format (`format`), shared by the trainer that writes nets and the engine
//! that reads them. It knows the board only through `chess`; nothing of search or protocols.

pub mod format;
