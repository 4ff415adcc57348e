/**
 * The code under test: a tiny client of the service, as an app would write it. It knows only
 * the service's base URL and API token, nothing about the sandbox.
 */
export function crmClient(baseUrl: string, apiToken: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'service-api-token': apiToken, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
  return {
    /** Creates a HubSpot contact through the passthrough. */
    createHubspotContact: (accessToken: string, firstname: string, email: string) =>
      call('POST', '/crm/passthrough', {
        accessToken,
        method: 'POST',
        path: 'crm/v3/objects/contacts',
        body: { properties: { firstname, email } },
      }),
    listUsers: (accessToken: string) => call('GET', `/engagement/users?accessToken=${accessToken}&limit=5`),
    connections: () => call('GET', '/connection/connections'),
  };
}
