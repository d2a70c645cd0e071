//! STUB: augmented deadline-ordered tree (being written).
