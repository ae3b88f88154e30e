// GiftKeeperCrypto
