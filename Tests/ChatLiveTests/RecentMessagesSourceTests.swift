import ChatLive
import Testing

@Suite struct RecentMessagesSourceTests {
    @Test("the base URL may be given with the API's path (as the service's docs write it) or trailing slashes")
    func baseURL() {
        let wanted = "https://recent-messages.robotty.de/api/v2/recent-messages/pixelharbor?"
        for given in [
            "https://recent-messages.robotty.de", "https://recent-messages.robotty.de/",
            "https://recent-messages.robotty.de/api/v2/recent-messages/",
            "https://recent-messages.robotty.de/api/v2/recent-messages",
            "https://recent-messages.robotty.de/API/v2/Recent-Messages//",
        ] {
            let source = RecentMessagesSource(baseURL: given)
            #expect(source.baseURL == "https://recent-messages.robotty.de", "\(given)")
            #expect(source.url(for: "pixelharbor").hasPrefix(wanted), "\(given)")
        }
        // A path of its own (a service behind a proxy) is kept.
        #expect(RecentMessagesSource(baseURL: "http://127.0.0.1:8080/rm/").baseURL == "http://127.0.0.1:8080/rm")
        #expect(
            RecentMessagesSource(baseURL: "http://h", limit: 5).url(for: "c")
                == "http://h/api/v2/recent-messages/c?hide_moderation_messages=false&hide_moderated_messages=false"
                + "&clearchatToNotice=false&limit=5")
    }
}
