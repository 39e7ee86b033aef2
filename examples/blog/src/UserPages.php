<?php

declare(strict_types=1);

namespace Blog;

use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Web\App;
use Petrel\Web\Error\NotFound;
use Petrel\Web\Validation\ValidationException;
use Petrel\Web\Validation\Validator;
use Petrel\Web\View\View;

/** The HTML pages about users: list, one user, and the sign-up form. */
final readonly class UserPages
{
    private const FORM_FIELDS = ['name', 'email', 'bio'];

    public function __construct(private View $view, private Settings $settings)
    {
    }

    /** `GET /users?page=N` (a 404 past the last page) */
    public function index(Request $request): Response
    {
        $page = \filter_var($request->getQueryParam('page'), \FILTER_VALIDATE_INT, ['options' => ['min_range' => 1]]);
        $users = User::query()->orderBy('id')->paginate(\is_int($page) ? $page : 1, $this->settings->perPage);
        if ($users->page > $users->pages) {
            throw new NotFound("There is no page {$users->page}: the last is {$users->pages}.");
        }

        return $this->view->response('users/index.html.twig', ['page' => $users]);
    }

    /** `GET /users/{id}` — a 404 page when there is no such user. */
    public function show(int $id, Request $request): Response
    {
        return $this->view->response('users/show.html.twig', [
            'user' => User::findOrFail($id),
            'created' => $request->getQueryParam('created') === '1',
        ]);
    }

    /** `GET /users/new` (session + CSRF middleware) */
    public function create(): Response
    {
        return $this->form([], []);
    }

    /**
     * `POST /users` (session + CSRF middleware): invalid input shows the form again with
     * the messages and what was typed (422); valid input creates the user and redirects to
     * its page (303, so reloading does not post again).
     */
    public function store(Request $request, App $app): Response
    {
        $input = $request->getParsedBody();
        try {
            $data = Validator::validate($input, [
                'name' => 'required|string|max:100',
                'email' => ['required', 'string', 'email', 'max:190', static fn (mixed $email): ?string =>
                    User::where('email', $email)->exists() ? 'That email address is already taken.' : null],
                'bio' => 'nullable|string|max:500',
            ]);
        } catch (ValidationException $invalid) {
            return $this->form($input, $invalid->errors(), 422);
        }
        $user = User::create($data);

        return Response::redirect($app->url('user', ['id' => $user->id], ['created' => 1]), 303);
    }

    /**
     * @param array<mixed> $input
     * @param array<string, list<string>> $errors
     */
    private function form(array $input, array $errors, int $status = 200): Response
    {
        $old = [];
        foreach (self::FORM_FIELDS as $field) {
            $old[$field] = \is_string($input[$field] ?? null) ? $input[$field] : '';
        }

        return $this->view->response('users/new.html.twig', ['old' => $old, 'errors' => $errors], $status);
    }
}
