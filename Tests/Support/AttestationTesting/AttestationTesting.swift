// The synthetic App Attest CA and keys, the CBOR encoder and the Play Integrity minter live in the Simulator library
// (`gatehouse simulate` plays a phone with them); the tests reach them through this module, as before.
@_exported import Simulator
