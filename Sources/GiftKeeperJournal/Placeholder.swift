// GiftKeeperJournal
