// Tests for HTTP.
