// Tests for Gatehouse.
