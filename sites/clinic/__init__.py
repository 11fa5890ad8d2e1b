"""CareBridge patient portal."""
