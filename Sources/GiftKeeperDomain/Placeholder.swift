// GiftKeeperDomain
