//! Observation files (paper Fig. 7): to be written.
