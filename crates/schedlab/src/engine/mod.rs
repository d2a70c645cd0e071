//! The discrete-event engine.
