<?php

declare(strict_types=1);

namespace Blog;

use Petrel\Http\Response;
use Petrel\Web\View\View;

/** `GET /` — the seeds' benchmark page: one model lookup, one template. No session. */
final readonly class HomePage
{
    public function __construct(private View $view)
    {
    }

    public function __invoke(): Response
    {
        return $this->view->response('home.html.twig', ['user' => User::find(1)]);
    }
}
