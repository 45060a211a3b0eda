// Tests for Crypto.
