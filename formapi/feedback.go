package formapi

// maxAttachment is the largest feedback attachment (SPEC §9).
const maxAttachment = 5_000_000
