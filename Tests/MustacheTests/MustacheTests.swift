// Tests for Mustache.
