"""Every bound the receipt and proof readers apply, with the Swift library's defaults (``ReceiptLimits``)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReceiptLimits:
    """Sizes and windows. The defaults are GatehouseReceipts': 8 KiB tokens, 512-byte proofs, 64 KiB and 32 keys per
    JWKS, proofs at most 2 minutes old and 10 seconds ahead, receipts issued at most 60 seconds ahead."""

    #: Longest token read, in bytes (a bound receipt is about 600).
    max_token_bytes: int = 8192
    #: Longest proof header read, in bytes (a DER signature makes one about 110).
    max_proof_bytes: int = 512
    #: Longest JWKS document read, in bytes.
    max_key_set_bytes: int = 65_536
    #: Most keys in a JWKS.
    max_keys: int = 32
    #: How old a proof may be, in milliseconds (2 minutes).
    proof_max_age_ms: int = 120_000
    #: How far in the future a proof's time may lie (the phone's clock ahead), in milliseconds.
    proof_max_ahead_ms: int = 10_000
    #: How far in the future a receipt's ``iat`` may lie (the issuer's clock ahead), in seconds.
    issued_at_leeway_seconds: int = 60
