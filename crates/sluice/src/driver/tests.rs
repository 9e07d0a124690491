//! Tests of the driver: depth, attribution, the time channel.
