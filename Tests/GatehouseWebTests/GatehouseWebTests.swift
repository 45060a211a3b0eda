// Tests for GatehouseWeb.
