/** Docker's image reference grammar, simplified: [registry[:port]/]path[:tag][@digest]. */
export const IMAGE_REFERENCE =
  /^(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:]+\])(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

export const IMAGE_REFERENCE_MESSAGE = 'Dit is geen geldige image-naam (bijvoorbeeld registry.school.nl/php:8.3).';
