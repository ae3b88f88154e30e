// GiftKeeperREPL
