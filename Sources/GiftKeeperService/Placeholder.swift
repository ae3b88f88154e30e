// GiftKeeperService
