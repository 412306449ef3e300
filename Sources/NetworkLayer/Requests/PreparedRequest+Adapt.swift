import Foundation

extension PreparedRequest {
    /// The request as the provider's `adapt(_:)` sees it.
    func outgoing() -> OutgoingRequest {
        let body: Data?
        let length: Int?
        switch self.body {
        case .bytes(let data)?: (body, length) = (data, data.count)
        case .file(_, let size)?: (body, length) = (nil, Int(clamping: size))
        case .multipart?: (body, length) = (nil, nil)
        case .stream(let upload)?: (body, length) = (nil, upload.length.map { Int(clamping: $0) })
        case nil: (body, length) = (nil, 0)
        }
        return OutgoingRequest(of: self, headers: headers, body: body, bodyLength: length, redactor: redactor)
    }

    /// This request with what `adapt(_:)` changed: its headers (each one it set checked like any
    /// header), the names it declared secret added to the redaction rules, and the names it set
    /// remembered, so that a redirect to another origin leaves them behind.
    func adapted(_ outgoing: OutgoingRequest) throws(NetworkError) -> PreparedRequest {
        guard outgoing.isModified else { return self }
        for header in outgoing.headerList where outgoing.setNames.contains(header.name.lowercased()) {
            do {
                try HeaderFields.validate(name: header.name, value: header.value)
            } catch {
                throw error.updatingContext { context in
                    context.request = redactedDescription
                    context.reason = "the provider's adapt(_:) set an invalid header: " + (context.reason ?? "")
                }
            }
        }
        var secrets = self.secrets
        for name in outgoing.secretNames { secrets.insert(header: name) }
        for header in outgoing.headerList where Redactor.looksSecret(header: header.name) { secrets.insert(header: header.name) }
        return with(headers: outgoing.headerList, secrets: secrets, adaptedHeaderNames: adaptedHeaderNames.union(outgoing.setNames))
    }
}
