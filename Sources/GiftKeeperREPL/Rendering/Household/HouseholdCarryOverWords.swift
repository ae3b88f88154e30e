/// What a member's other device says when it carries itself over after their `passwd` on
/// another device (SPEC §13; docs/households.md, "Changing your password").
extension HouseholdWords {
    package static let renewedElsewhere =
        "Your password was changed on another device: give the new one to carry this device over "
        + "(the old one opens only what came before the change)."
    package static let renewedPasswordPrompt = "New password (the one set on your other device): "
    package static let notTheNewPassword =
        "That password opens no renewal of your keys: nothing was changed here. "
        + "Sign in with the old password again and give the new one set on your other device."
    package static let notYourRenewal =
        "That password opens another member's keys, not a renewal of yours: nothing was changed here."
    package static let carriedOver =
        "This device is carried over to your new keys: sign in here with your new password from now on; the old one opens nothing here."
    /// After a wrong password for a household's record: the new one, typed on a device that has not seen the change yet?
    package static let signInOnceWithTheOld =
        "If your password was changed on another device, sign in here once with the old one: this device then asks for the new one."
    package static let wrongPassword = "Wrong password. " + signInOnceWithTheOld
}
