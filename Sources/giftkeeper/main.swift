print("giftkeeper")
